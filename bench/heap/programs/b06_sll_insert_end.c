#include "sll.h"

void append(int data) {
    struct node *n, *last;
    n = malloc(sizeof(struct node));
    n->data = data;
    n->next = NULL;
    if (head == NULL) {
        head = n;
        return;
    }
    last = head;
    while (last->next != NULL)
        last = last->next;
    last->next = n;
}

int main() {
    int a[] = {1, 2, 3};
    build(a, 3); append(4);
    build(a, 1); append(5);
    build(a, 0); append(6);
    return 0;
}
