#include "sll.h"

struct node *second;

/* insert the nodes of second at the alternate positions of head; what does not fit stays in second */
void merge_alternate() {
    struct node *p, *q, *p_next, *q_next;
    p = head;
    q = second;
    while (p != NULL && q != NULL) {
        p_next = p->next;
        q_next = q->next;
        q->next = p_next;
        p->next = q;
        p = p_next;
        q = q_next;
    }
    second = q;
}

int main() {
    int a[] = {1, 2, 3};
    int b[] = {4, 5, 6, 7, 8};
    build(b, 5); second = head; build(a, 3); merge_alternate();
    build(b, 2); second = head; build(a, 3); merge_alternate();
    build(b, 1); second = head; build(a, 0); merge_alternate();
    return 0;
}
