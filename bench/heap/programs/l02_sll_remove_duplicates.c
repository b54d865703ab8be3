#include "sll.h"

/* sorted list: keep one node of each value */
void remove_duplicates() {
    struct node *cur, *nxt, *after;
    cur = head;
    if (cur == NULL)
        return;
    nxt = cur->next;
    while (nxt != NULL) {
        if (cur->data == nxt->data) {
            after = nxt->next;
            cur->next = after;
            free(nxt);
            nxt = after;
        } else {
            cur = nxt;
            nxt = cur->next;
        }
    }
}

int main() {
    int a[] = {1, 1, 2, 3, 3, 3};
    int b[] = {1, 2, 3};
    build(a, 6); remove_duplicates();
    build(b, 3); remove_duplicates();
    build(a, 2); remove_duplicates();
    return 0;
}
