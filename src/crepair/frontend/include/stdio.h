/* crepair: stand-in for <stdio.h>; I/O functions are not modelled. */
