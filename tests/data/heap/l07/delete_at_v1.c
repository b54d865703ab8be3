#include "sll.h"

/* delete the node at position pos (0-based), if any */
void delete_at(int pos) {
    struct node *temp, *victim, *after;
    int i;
    temp = head;
    if (temp == NULL)
        return;
    if (pos == 0) {
        head = temp->next;
        free(temp);
        return;
    }
    for (i = 1; temp != NULL && i < pos; i++)
        temp = temp->next;
    if (temp == NULL)
        return;
    victim = victim->next;
    if (victim == NULL)
        return;
    after = after->next;
    free(victim);
    temp->next = after;
}

int main() {
    int a[] = {1, 2, 3, 4, 5};
    build(a, 5); delete_at(2);
    build(a, 5); delete_at(0);
    build(a, 3); delete_at(2);
    build(a, 2); delete_at(5);
    return 0;
}
