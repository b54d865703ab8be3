/* crepair: stand-in for <math.h>: declarations only (floating point is not
   modelled by the bounded engine). */
double sqrt(double);
double pow(double, double);
double fabs(double);
double floor(double);
double ceil(double);
double round(double);
double log(double);
double log2(double);
double log10(double);
double exp(double);
double sin(double);
double cos(double);
double tan(double);
double atan(double);
double atan2(double, double);
double fmod(double, double);
double hypot(double, double);
