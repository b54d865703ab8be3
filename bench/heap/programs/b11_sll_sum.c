#include "sll.h"

int sum() {
    int total = 0;
    struct node *cur;
    for (cur = head; cur != NULL; cur = cur->next)
        total = total + cur->data;
    return total;
}

int main() {
    int a[] = {3, 1, 4, 1, 5};
    build(a, 5); sum();
    build(a, 1); sum();
    build(a, 0); sum();
    return 0;
}
