#include "sll.h"

/* swap nodes pairwise by changing links */
void pairwise_swap() {
    struct node *prev, *cur, *nxt, *after;
    cur = head;
    if (cur == NULL)
        return;
    nxt = cur->next;
    if (nxt == NULL)
        return;
    head = nxt;
    prev = NULL;
    while (cur != NULL && nxt != NULL) {
        after = nxt->next;
        nxt->next = cur;
        cur->next = after;
        if (prev != NULL)
            prev->next = nxt;
        prev = cur;
        cur = after;
        if (cur != NULL)
            nxt = cur->next;
    }
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    build(a, 5); pairwise_swap();
    build(a, 4); pairwise_swap();
    build(a, 1); pairwise_swap();
    return 0;
}
