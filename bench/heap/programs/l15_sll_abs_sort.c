#include "sll.h"

/* a list sorted by absolute value becomes sorted by value: move the negative nodes to the front */
void abs_sort() {
    struct node *prev, *cur, *nxt;
    if (head == NULL)
        return;
    prev = head;
    cur = head->next;
    while (cur != NULL) {
        nxt = cur->next;
        if (cur->data < prev->data) {
            prev->next = nxt;
            cur->next = head;
            head = cur;
            cur = nxt;
        } else {
            prev = cur;
            cur = nxt;
        }
    }
}

int main() {
    int a[] = {0, -1, 2, -3, 4, -5};
    int b[] = {1, -2, -3};
    build(a, 6); abs_sort();
    build(b, 3); abs_sort();
    build(a, 1); abs_sort();
    return 0;
}
