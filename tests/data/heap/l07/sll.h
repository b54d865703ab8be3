/* Singly linked lists for the heap benchmark: a global head, push at the front. */
#include <stdlib.h>
struct node {
    int data;
    struct node *next;
};
struct node *head;
void push(int data) {
    struct node *n = malloc(sizeof(struct node));
    n->data = data;
    n->next = head;
    head = n;
}
/* head = a[0] -> a[1] -> ... -> a[len-1] */
void build(const int *a, int len) {
    head = NULL;
    for (int i = len - 1; i >= 0; i--)
        push(a[i]);
}
