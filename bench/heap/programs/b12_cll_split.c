#include "sll.h"

struct node *head1, *head2;

/* head is a circular list of at least two nodes: split it into two circular halves */
void split_circular() {
    struct node *slow, *fast, *f1, *f2;
    slow = head;
    fast = head;
    f1 = fast->next;
    f2 = f1->next;
    while (f1 != head && f2 != head) {
        fast = f2;
        slow = slow->next;
        f1 = fast->next;
        f2 = f1->next;
    }
    if (f2 == head)
        fast = f1;
    head1 = head;
    head2 = slow->next;
    fast->next = slow->next;
    slow->next = head;
}

void circular(const int *a, int len) {
    struct node *last;
    build(a, len);
    last = head;
    while (last->next != NULL) last = last->next;
    last->next = head;
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    circular(a, 4); split_circular();
    circular(a, 5); split_circular();
    circular(a, 2); split_circular();
    return 0;
}
