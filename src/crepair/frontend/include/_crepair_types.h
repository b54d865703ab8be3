/* crepair: the types the standard headers share (gcc, x86-64, LP64). */
#ifndef __CREPAIR_TYPES_H
#define __CREPAIR_TYPES_H
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef long ssize_t;
typedef int wchar_t;
typedef struct __crepair_FILE FILE;
#define NULL 0
#define EOF (-1)
#endif
