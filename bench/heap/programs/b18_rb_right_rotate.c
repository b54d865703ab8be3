#include "tree.h"

void rb_right_rotate(struct tnode *y) {
    struct tnode *x, *t, *p, *pr;
    x = y->left;
    t = x->right;
    y->left = t;
    if (t != NULL)
        t->parent = y;
    p = y->parent;
    x->parent = p;
    if (p == NULL) {
        root = x;
    } else {
        pr = p->right;
        if (y == pr)
            p->right = x;
        else
            p->left = x;
    }
    x->right = y;
    y->parent = x;
}

int main() {
    struct tnode *y;
    root = mk(20, mk(10, mk(5, NULL, NULL), mk(15, NULL, NULL)), mk(30, NULL, NULL));
    rb_right_rotate(root);
    y = mk(30, mk(25, NULL, NULL), NULL);
    root = mk(10, mk(5, NULL, NULL), y);
    rb_right_rotate(y);
    y = mk(5, mk(3, NULL, mk(4, NULL, NULL)), NULL);
    root = mk(10, y, mk(20, NULL, NULL));
    rb_right_rotate(y);
    return 0;
}
