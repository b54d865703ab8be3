#include "dll.h"

/* delete the first node holding key from a doubly linked list */
void dll_delete(int key) {
    struct node *del, *p, *n;
    del = head;
    while (del != NULL && del->data != key)
        del = del->next;
    if (del == NULL)
        return;
    p = del->prev;
    n = del->next;
    if (p == NULL)
        head = n;
    else
        p->next = n;
    if (n != NULL)
        n->prev = p;
    free(del);
}

int main() {
    int a[] = {1, 2, 3, 4};
    build(a, 4); dll_delete(3);
    build(a, 4); dll_delete(1);
    build(a, 4); dll_delete(4);
    build(a, 2); dll_delete(9);
    return 0;
}
