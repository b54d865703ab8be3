#include "sll.h"

void swap_first_two() {
    struct node *first, *second, *rest;
    first = head;
    if (first == NULL)
        return;
    second = first->next;
    if (second == NULL)
        return;
    rest = second->next;
    first->next = rest;
    second->next = first;
    head = second;
}

int main() {
    int a[] = {1, 2, 3, 4};
    build(a, 4); swap_first_two();
    build(a, 2); swap_first_two();
    build(a, 1); swap_first_two();
    return 0;
}
