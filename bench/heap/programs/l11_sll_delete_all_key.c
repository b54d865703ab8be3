#include "sll.h"

/* delete every node holding key */
void delete_all(int key) {
    struct node *temp, *prev = NULL, *nxt;
    temp = head;
    while (temp != NULL && temp->data == key) {
        head = temp->next;
        free(temp);
        temp = head;
    }
    while (temp != NULL) {
        while (temp != NULL && temp->data != key) {
            prev = temp;
            temp = temp->next;
        }
        if (temp == NULL)
            return;
        nxt = temp->next;
        prev->next = nxt;
        free(temp);
        temp = nxt;
    }
}

int main() {
    int a[] = {2, 2, 1, 2, 3, 2};
    build(a, 6); delete_all(2);
    build(a, 5); delete_all(3);
    build(a, 3); delete_all(7);
    return 0;
}
