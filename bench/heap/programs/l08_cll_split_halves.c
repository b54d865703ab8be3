#include "sll.h"

struct node *half1, *half2;

/* a circular list of n >= 2 nodes: count them, cut after (n+1)/2, close both halves */
void split_halves() {
    struct node *p, *last, *mid;
    int n = 1, k, h = 0;
    p = head->next;
    last = head;
    while (p != head) {
        n++;
        last = p;
        p = p->next;
    }
    for (k = n; k > 2; k = k - 2)
        h++;
    mid = head;
    for (k = 0; k < h; k++)
        mid = mid->next;
    half1 = head;
    half2 = mid->next;
    mid->next = head;
    last->next = half2;
}

void circular(const int *a, int len) {
    struct node *l;
    build(a, len);
    l = head;
    while (l->next != NULL) l = l->next;
    l->next = head;
}

int main() {
    int a[] = {1, 2, 3, 4, 5, 6};
    circular(a, 6); split_halves();
    circular(a, 5); split_halves();
    circular(a, 2); split_halves();
    return 0;
}
