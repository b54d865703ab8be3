#include "tree.h"

struct tnode *right_rotate(struct tnode *y) {
    struct tnode *x, *t2, *a, *b;
    int hl, hr;
    x = y->left;
    t2 = x->right;
    x->right = y;
    y->left = t2;
    hl = 0; hr = 0;
    a = y->left; b = y->right;
    if (a != NULL) hl = a->height;
    if (b != NULL) hr = b->height;
    if (hl > hr) y->height = hl + 1; else y->height = hr + 1;
    hl = 0;
    a = x->left;
    if (a != NULL) hl = a->height;
    hr = y->height;
    if (hl > hr) x->height = hl + 1; else x->height = hr + 1;
    return x;
}

int main() {
    root = mk(30, mk(20, mk(10, NULL, NULL), mk(25, NULL, NULL)), mk(40, NULL, NULL));
    root = right_rotate(root);
    root = mk(3, mk(2, mk(1, NULL, NULL), NULL), NULL);
    root = right_rotate(root);
    return 0;
}
