#include "tree.h"

/* right rotation of z's right child, then left rotation of z */
struct tnode *right_left(struct tnode *z) {
    struct tnode *x, *y, *t2, *t3;
    x = z->right;
    y = x->left;
    t3 = y->right;
    y->right = x;
    x->left = t3;
    z->right = y;
    t2 = y->left;
    y->left = z;
    z->right = t2;
    return y;
}

int main() {
    root = mk(10, mk(5, NULL, NULL), mk(30, mk(20, mk(15, NULL, NULL), mk(25, NULL, NULL)), mk(40, NULL, NULL)));
    root = right_left(root);
    root = mk(1, NULL, mk(3, mk(2, NULL, NULL), NULL));
    root = right_left(root);
    return 0;
}
