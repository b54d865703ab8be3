#include "sll.h"

/* nodes smaller than x first, the others after, each group in order */
void partition(int x) {
    struct node *small_h = NULL, *small_t = NULL, *big_h = NULL, *big_t = NULL, *cur, *nxt;
    cur = head;
    while (cur != NULL) {
        nxt = cur->next;
        cur->next = NULL;
        if (cur->data < x) {
            if (small_h == NULL) small_h = cur; else small_t->next = cur;
            small_t = cur;
        } else {
            if (big_h == NULL) big_h = cur; else big_t->next = cur;
            big_t = cur;
        }
        cur = nxt;
    }
    if (small_h == NULL) {
        head = big_h;
        return;
    }
    small_t->next = big_h;
    head = small_h;
}

int main() {
    int a[] = {5, 1, 4, 2, 3};
    build(a, 5); partition(3);
    build(a, 3); partition(9);
    build(a, 2); partition(0);
    return 0;
}
