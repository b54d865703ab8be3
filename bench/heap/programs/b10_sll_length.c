#include "sll.h"

int length() {
    int count = 0;
    struct node *cur;
    cur = head;
    while (cur != NULL) {
        count++;
        cur = cur->next;
    }
    return count;
}

int main() {
    int a[] = {1, 2, 3, 4};
    build(a, 4); length();
    build(a, 1); length();
    build(a, 0); length();
    return 0;
}
