#include "tree.h"

struct tnode *left_rotate(struct tnode *x) {
    struct tnode *y, *t;
    y = x->right;
    t = y->left;
    x->right = t;
    y->left = x;
    return y;
}

int main() {
    root = mk(2, mk(1, NULL, NULL), mk(4, mk(3, NULL, NULL), mk(5, NULL, NULL)));
    root = left_rotate(root);
    root = mk(1, NULL, mk(2, NULL, NULL));
    root = left_rotate(root);
    return 0;
}
