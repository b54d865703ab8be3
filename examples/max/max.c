/* Prints 1 when the first of two numbers is the larger one (or equal),
   else 0.  Bug: ties print 0. */
#include <stdio.h>

int main(void) {
  int a, b;
  if (scanf("%d %d", &a, &b) != 2)
    return 1;
  if (a > b)
    printf("%d\n", 1);
  else
    printf("%d\n", 0);
  return 0;
}
