/* crepair: stand-in for <stdlib.h>.  The bounded engine models abs, labs,
   llabs, exit and abort; a call to another of these functions is reported
   as a library function it does not model. */
#include "_crepair_types.h"
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647
int abs(int);
long labs(long);
long long llabs(long long);
int atoi(const char *);
long atol(const char *);
long long atoll(const char *);
long strtol(const char *, char **, int);
unsigned long strtoul(const char *, char **, int);
long long strtoll(const char *, char **, int);
unsigned long long strtoull(const char *, char **, int);
double atof(const char *);
double strtod(const char *, char **);
int rand(void);
void srand(unsigned);
void *malloc(size_t);
void *calloc(size_t, size_t);
void *realloc(void *, size_t);
void free(void *);
void abort(void);
void exit(int);
int atexit(void (*)(void));
char *getenv(const char *);
int system(const char *);
void qsort(void *, size_t, size_t, int (*)(const void *, const void *));
void *bsearch(const void *, const void *, size_t, size_t, int (*)(const void *, const void *));
