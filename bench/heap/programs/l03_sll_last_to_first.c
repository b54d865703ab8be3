#include "sll.h"

void last_to_front() {
    struct node *second_last = NULL, *last, *nxt;
    last = head;
    if (last == NULL)
        return;
    nxt = last->next;
    if (nxt == NULL)
        return;
    while (nxt != NULL) {
        second_last = last;
        last = nxt;
        nxt = last->next;
    }
    second_last->next = NULL;
    last->next = head;
    head = last;
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    build(a, 5); last_to_front();
    build(a, 2); last_to_front();
    build(a, 1); last_to_front();
    return 0;
}
