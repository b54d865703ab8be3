#include "tree.h"

struct tnode *left_rotate(struct tnode *x) {
    struct tnode *y, *t2, *a, *b;
    int hl, hr;
    y = x->right;
    t2 = y->left;
    y->left = x;
    x->right = t2;
    hl = 0; hr = 0;
    a = x->left; b = x->right;
    if (a != NULL) hl = a->height;
    if (b != NULL) hr = b->height;
    if (hl > hr) x->height = hl + 1; else x->height = hr + 1;
    hr = 0;
    b = y->right;
    if (b != NULL) hr = b->height;
    hl = x->height;
    if (hl > hr) y->height = hl + 1; else y->height = hr + 1;
    return y;
}

int main() {
    root = mk(10, mk(5, NULL, NULL), mk(20, mk(15, NULL, NULL), mk(30, NULL, NULL)));
    root = left_rotate(root);
    root = mk(1, NULL, mk(2, NULL, mk(3, NULL, NULL)));
    root = left_rotate(root);
    return 0;
}
