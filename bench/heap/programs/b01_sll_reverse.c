#include "sll.h"

void reverse() {
    struct node *prev = NULL, *cur, *nxt;
    cur = head;
    while (cur != NULL) {
        nxt = cur->next;
        cur->next = prev;
        prev = cur;
        cur = nxt;
    }
    head = prev;
}

int main() {
    int a[] = {1, 2, 3, 4};
    build(a, 4); reverse();
    build(a, 1); reverse();
    build(a, 0); reverse();
    return 0;
}
