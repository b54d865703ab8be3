#include "sll.h"

struct node *head_b;

/* the first node the lists head and head_b share (NULL if none) */
struct node *intersection() {
    struct node *p, *q;
    int la = 0, lb = 0, d;
    for (p = head; p != NULL; p = p->next) la++;
    for (q = head_b; q != NULL; q = q->next) lb++;
    p = head;
    q = head_b;
    if (la > lb) {
        for (d = la - lb; d > 0; d--) p = p->next;
    } else {
        for (d = lb - la; d > 0; d--) q = q->next;
    }
    while (p != q) {
        p = p->next;
        q = q->next;
    }
    return p;
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    int b[] = {9, 8};
    build(a, 5);
    struct node *common = head->next->next->next;
    build(b, 2);
    head->next->next = common;
    head_b = head;
    build(a, 3);
    head->next->next->next = common;
    intersection();
    build(b, 1);
    head_b = head;
    build(a, 2);
    intersection();
    return 0;
}
