#include "sll.h"

/* constrained deletion: delete every second node */
void delete_alternate() {
    struct node *prev, *node, *nxt;
    if (head == NULL)
        return;
    prev = head;
    node = head->next;
    while (prev != NULL && node != NULL) {
        nxt = node->next;
        prev->next = nxt;
        free(node);
        prev = nxt;
        if (prev != NULL)
            node = prev->next;
    }
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    build(a, 5); delete_alternate();
    build(a, 4); delete_alternate();
    build(a, 1); delete_alternate();
    return 0;
}
