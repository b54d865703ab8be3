#include "sll.h"

/* move the middle node (the second of two middles) to the front */
void middle_to_head() {
    struct node *slow, *fast, *prev = NULL, *f1, *after;
    if (head == NULL)
        return;
    slow = head;
    fast = head;
    f1 = fast->next;
    while (fast != NULL && f1 != NULL) {
        prev = slow;
        slow = slow->next;
        fast = f1->next;
        if (fast != NULL)
            f1 = fast->next;
    }
    if (prev == NULL)
        return;
    after = slow->next;
    prev->next = after;
    slow->next = head;
    head = slow;
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    build(a, 5); middle_to_head();
    build(a, 4); middle_to_head();
    build(a, 1); middle_to_head();
    return 0;
}
