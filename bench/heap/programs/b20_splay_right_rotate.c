#include "tree.h"

struct tnode *right_rotate(struct tnode *x) {
    struct tnode *y, *t;
    y = x->left;
    t = y->right;
    x->left = t;
    y->right = x;
    return y;
}

int main() {
    root = mk(4, mk(2, mk(1, NULL, NULL), mk(3, NULL, NULL)), mk(5, NULL, NULL));
    root = right_rotate(root);
    root = mk(2, mk(1, NULL, NULL), NULL);
    root = right_rotate(root);
    return 0;
}
