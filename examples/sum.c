/* Sum of 0..n-1 should be n*(n-1)/2 ... but the author wanted 1..n.
 * crepair finds the smallest change that makes the assertion hold. */
#include <assert.h>

int sum(int n)
{
    __CPROVER_assume(n >= 1 && n <= 5);
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    assert(s == n * (n + 1) / 2);
    return s;
}

int main(void)
{
    int n = nondet_int();
    return sum(n);
}
