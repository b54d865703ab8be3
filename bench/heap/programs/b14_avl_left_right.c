#include "tree.h"

/* left rotation of z's left child, then right rotation of z */
struct tnode *left_right(struct tnode *z) {
    struct tnode *x, *y, *t2, *t3;
    x = z->left;
    y = x->right;
    t2 = y->left;
    y->left = x;
    x->right = t2;
    z->left = y;
    t3 = y->right;
    y->right = z;
    z->left = t3;
    return y;
}

int main() {
    root = mk(30, mk(10, mk(5, NULL, NULL), mk(20, mk(15, NULL, NULL), mk(25, NULL, NULL))), mk(40, NULL, NULL));
    root = left_right(root);
    root = mk(3, mk(1, NULL, mk(2, NULL, NULL)), NULL);
    root = left_right(root);
    return 0;
}
