#include "sll.h"

struct node *slow_ptr, *fast_ptr;

/* Fig. 4 of the paper (corrected): delete the middle node of a list of at least two nodes */
void delete_mid() {
    struct node *temp, *prev = NULL;
    slow_ptr = head;
    fast_ptr = head;
    temp = fast_ptr->next;
    while (fast_ptr != NULL && temp != NULL) {
        fast_ptr = temp->next;
        if (fast_ptr != NULL) {
            temp = fast_ptr->next;
        }
        prev = slow_ptr;
        slow_ptr = slow_ptr->next;
    }
    temp = slow_ptr->next;
    prev->next = temp;
    free(slow_ptr);
}

int main() {
    int a[] = {2, 4, 8, 16, 32};
    build(a, 3); delete_mid();
    build(a, 4); delete_mid();
    build(a, 5); delete_mid();
    build(a, 2); delete_mid();
    return 0;
}
