#include "dll.h"

/* sorted doubly linked list: keep one node of each value */
void dll_dedup() {
    struct node *cur, *nxt, *after;
    cur = head;
    if (cur == NULL)
        return;
    nxt = cur->next;
    while (nxt != NULL) {
        if (nxt->data == cur->data) {
            after = nxt->next;
            cur->next = after;
            if (after != NULL)
                after->prev = cur;
            free(nxt);
            nxt = after;
        } else {
            cur = nxt;
            nxt = cur->next;
        }
    }
}

int main() {
    int a[] = {1, 1, 2, 2, 2, 3};
    build(a, 6); dll_dedup();
    build(a, 3); dll_dedup();
    build(a, 1); dll_dedup();
    return 0;
}
