#include "sll.h"

void make_circular() {
    struct node *last;
    if (head == NULL)
        return;
    last = head;
    while (last->next != NULL)
        last = last->next;
    last->next = head;
}

int main() {
    int a[] = {1, 2, 3, 4};
    build(a, 4); make_circular();
    build(a, 1); make_circular();
    build(a, 0); make_circular();
    return 0;
}
