#include "sll.h"

void delete_key(int key) {
    struct node *temp, *prev = NULL;
    temp = head;
    if (temp != NULL && temp->data == key) {
        head = temp->next;
        free(temp);
        return;
    }
    while (temp != NULL && temp->data != key) {
        prev = temp;
        temp = temp->next;
    }
    if (temp == NULL)
        return;
    prev->next = temp->next;
    free(temp);
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    build(a, 5); delete_key(3);
    build(a, 5); delete_key(1);
    build(a, 3); delete_key(9);
    return 0;
}
