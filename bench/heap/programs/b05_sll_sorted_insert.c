#include "sll.h"

void sorted_insert(int data) {
    struct node *n, *cur, *nxt;
    n = malloc(sizeof(struct node));
    n->data = data;
    if (head == NULL || head->data >= data) {
        n->next = head;
        head = n;
        return;
    }
    cur = head;
    nxt = cur->next;
    while (nxt != NULL && nxt->data < data) {
        cur = nxt;
        nxt = cur->next;
    }
    n->next = nxt;
    cur->next = n;
}

int main() {
    int a[] = {2, 4, 6, 8};
    build(a, 4); sorted_insert(5);
    build(a, 4); sorted_insert(1);
    build(a, 4); sorted_insert(9);
    build(a, 0); sorted_insert(3);
    return 0;
}
