#include "dll.h"

void reverse() {
    struct node *current, *temp1 = NULL, *temp2 = NULL;
    current = head;
    while (current != NULL) {
        temp1 = current->prev;
        temp2 = current->next;
        current->prev = temp2;
        current->next = temp1;
        current = current->prev;
    }
    if (temp1 != NULL)
        head = temp1->prev;
}

int main() {
    int a[] = {2, 4, 8, 10};
    build(a, 4); reverse();
    build(a, 1); reverse();
    build(a, 0); reverse();
    return 0;
}
