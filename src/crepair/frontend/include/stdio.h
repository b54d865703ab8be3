/* crepair: stand-in for <stdio.h>.  scanf, getchar, gets and fgets read
   stdin as a stream of input tokens; printf, puts, putchar and
   fprintf(stdout, ...) write an output compared under --reference from
   main (crepair.encode.stdin, crepair.encode.stdio); fflush is accepted.
   fscanf, fgets, fgetc and getc on stdin, and fprintf, fputs, fputc and
   putc on stdout or stderr (not compared), are the calls above; a FILE *
   may hold stdin, stdout or stderr (crepair.encode.streams).  A call to
   another of these functions (fopen) is reported as a library function
   the bounded engine does not model.  stdin, stdout and stderr are not
   declared (the encoder knows their names). */
#include "_crepair_types.h"
#define BUFSIZ 8192
int printf(const char *, ...);
int fprintf(FILE *, const char *, ...);
int sprintf(char *, const char *, ...);
int snprintf(char *, size_t, const char *, ...);
int scanf(const char *, ...);
int fscanf(FILE *, const char *, ...);
int sscanf(const char *, const char *, ...);
int getchar(void);
int putchar(int);
int puts(const char *);
char *gets(char *);
char *fgets(char *, int, FILE *);
int fgetc(FILE *);
int getc(FILE *);
int ungetc(int, FILE *);
int fputc(int, FILE *);
int putc(int, FILE *);
int fputs(const char *, FILE *);
int fflush(FILE *);
FILE *fopen(const char *, const char *);
FILE *freopen(const char *, const char *, FILE *);
int fclose(FILE *);
size_t fread(void *, size_t, size_t, FILE *);
size_t fwrite(const void *, size_t, size_t, FILE *);
int feof(FILE *);
void perror(const char *);
