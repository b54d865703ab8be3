/* crepair: stand-in for <ctype.h>.  The bounded engine models these
   functions in the C locale with glibc's results (crepair.encode.libc). */
int isalnum(int);
int isalpha(int);
int isblank(int);
int iscntrl(int);
int isdigit(int);
int isgraph(int);
int islower(int);
int isprint(int);
int ispunct(int);
int isspace(int);
int isupper(int);
int isxdigit(int);
int tolower(int);
int toupper(int);
