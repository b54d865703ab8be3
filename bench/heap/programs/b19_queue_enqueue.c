#include "sll.h"

struct node *front, *rear;

void enqueue(int data) {
    struct node *n;
    n = malloc(sizeof(struct node));
    n->data = data;
    n->next = NULL;
    if (rear == NULL) {
        front = n;
        rear = n;
        return;
    }
    rear->next = n;
    rear = n;
}

int main() {
    front = NULL; rear = NULL;
    enqueue(1); enqueue(2); enqueue(3);
    return 0;
}
