/* crepair: stand-in for <stddef.h> (LP64). */
#include "_crepair_types.h"
