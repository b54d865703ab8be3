#include "sll.h"

struct node *front, *back;

/* split into two halves (the extra node in the front half) */
void front_back_split() {
    struct node *slow, *fast;
    if (head == NULL) {
        front = NULL;
        back = NULL;
        return;
    }
    slow = head;
    fast = head->next;
    while (fast != NULL) {
        fast = fast->next;
        if (fast != NULL) {
            slow = slow->next;
            fast = fast->next;
        }
    }
    front = head;
    back = slow->next;
    slow->next = NULL;
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    build(a, 5); front_back_split();
    build(a, 4); front_back_split();
    build(a, 1); front_back_split();
    return 0;
}
