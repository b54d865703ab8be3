#include "dll.h"

struct node *rest;

/* split after the first k nodes: head keeps k, rest gets the others */
void split_at(int k) {
    struct node *cur, *nxt;
    int i;
    rest = NULL;
    if (k <= 0 || head == NULL)
        return;
    cur = head;
    for (i = 1; i < k; i++) {
        nxt = cur->next;
        if (nxt == NULL)
            return;
        cur = nxt;
    }
    rest = cur->next;
    cur->next = NULL;
    if (rest != NULL)
        rest->prev = NULL;
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    build(a, 5); split_at(2);
    build(a, 3); split_at(3);
    build(a, 4); split_at(1);
    return 0;
}
