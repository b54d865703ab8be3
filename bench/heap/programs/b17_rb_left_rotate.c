#include "tree.h"

void rb_left_rotate(struct tnode *x) {
    struct tnode *y, *t, *p, *pl;
    y = x->right;
    t = y->left;
    x->right = t;
    if (t != NULL)
        t->parent = x;
    p = x->parent;
    y->parent = p;
    if (p == NULL) {
        root = y;
    } else {
        pl = p->left;
        if (x == pl)
            p->left = y;
        else
            p->right = y;
    }
    y->left = x;
    x->parent = y;
}

int main() {
    struct tnode *x;
    root = mk(10, mk(5, NULL, NULL), mk(20, mk(15, NULL, NULL), mk(30, NULL, NULL)));
    rb_left_rotate(root);
    x = mk(5, NULL, mk(7, mk(6, NULL, NULL), NULL));
    root = mk(10, x, mk(20, NULL, NULL));
    rb_left_rotate(x);
    x = mk(25, NULL, mk(27, NULL, NULL));
    root = mk(10, mk(5, NULL, NULL), x);
    rb_left_rotate(x);
    return 0;
}
