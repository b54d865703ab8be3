#include "sll.h"

struct node *pivot;

/* quicksort's partition step: the last node is the pivot; smaller nodes go before it (in order), the others after */
void partition_last() {
    struct node *last, *cur, *nxt, *less_h = NULL, *less_t = NULL, *more_h = NULL, *more_t = NULL;
    if (head == NULL)
        return;
    last = head;
    nxt = last->next;
    while (nxt != NULL) {
        last = nxt;
        nxt = last->next;
    }
    pivot = last;
    cur = head;
    while (cur != last) {
        nxt = cur->next;
        cur->next = NULL;
        if (cur->data < pivot->data) {
            if (less_h == NULL) less_h = cur; else less_t->next = cur;
            less_t = cur;
        } else {
            if (more_h == NULL) more_h = cur; else more_t->next = cur;
            more_t = cur;
        }
        cur = nxt;
    }
    pivot->next = more_h;
    if (less_h == NULL) {
        head = pivot;
        return;
    }
    less_t->next = pivot;
    head = less_h;
}

int main() {
    int a[] = {5, 1, 6, 2, 4};
    build(a, 5); partition_last();
    build(a, 2); partition_last();
    build(a, 1); partition_last();
    return 0;
}
