/* crepair: stand-in for <stdlib.h>. */
