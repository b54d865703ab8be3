#include <stdlib.h>

struct node {
    int data;
    struct node *next;
    struct node *prev;
};

struct node *head;

void reverse() {
    struct node *current, *temp1 = NULL, *temp2 = NULL;
    current = head;
    while (temp1 != NULL) {
        temp1 = current->prev;
        temp2 = current->prev;
        current->prev = temp2;
        current->next = temp1;
        current = current->prev;
    }
}

void push(int data) {
    struct node *n = malloc(sizeof(struct node));
    n->data = data;
    n->prev = NULL;
    n->next = head;
    if (head != NULL)
        head->prev = n;
    head = n;
}

int main() {
    push(2); push(4); push(8); push(10);
    reverse();
    head = NULL;
    push(7);
    reverse();
    head = NULL;
    reverse();
    return 0;
}
