/* crepair: stand-in for <stdbool.h>. */
#define bool _Bool
#define true 1
#define false 0
