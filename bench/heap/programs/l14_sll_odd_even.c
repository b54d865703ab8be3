#include "sll.h"

/* rearrange: nodes at odd positions first, then those at even positions */
void odd_even() {
    struct node *odd, *even, *even_head, *nxt;
    if (head == NULL)
        return;
    odd = head;
    even = head->next;
    even_head = even;
    while (even != NULL) {
        nxt = even->next;
        if (nxt == NULL) {
            odd->next = even_head;
            return;
        }
        odd->next = nxt;
        odd = nxt;
        nxt = odd->next;
        even->next = nxt;
        even = nxt;
    }
    odd->next = even_head;
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    build(a, 5); odd_even();
    build(a, 4); odd_even();
    build(a, 2); odd_even();
    return 0;
}
