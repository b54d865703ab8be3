#include "sll.h"

struct node *tail;

/* sorted insertion that keeps a tail pointer */
void insert_sorted(int data) {
    struct node *n, *prev = NULL, *cur;
    n = malloc(sizeof(struct node));
    n->data = data;
    n->next = NULL;
    cur = head;
    while (cur != NULL && cur->data < data) {
        prev = cur;
        cur = cur->next;
    }
    n->next = cur;
    if (prev == NULL)
        head = n;
    else
        prev->next = n;
    if (cur == NULL)
        tail = n;
}

int main() {
    int a[] = {2, 4, 6};
    build(a, 3); tail = head->next->next; insert_sorted(5);
    build(a, 3); tail = head->next->next; insert_sorted(7);
    build(a, 3); tail = head->next->next; insert_sorted(1);
    head = NULL; tail = NULL; insert_sorted(3);
    return 0;
}
