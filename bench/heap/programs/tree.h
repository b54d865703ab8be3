/* Binary trees for the heap benchmark: a global root, nodes with parent links and heights. */
#include <stdlib.h>
struct tnode {
    int key;
    int height;
    struct tnode *left;
    struct tnode *right;
    struct tnode *parent;
};
struct tnode *root;
struct tnode *mk(int key, struct tnode *l, struct tnode *r) {
    struct tnode *t = malloc(sizeof(struct tnode));
    t->key = key;
    t->left = l;
    t->right = r;
    t->parent = NULL;
    t->height = 1;
    if (l != NULL) { l->parent = t; if (l->height + 1 > t->height) t->height = l->height + 1; }
    if (r != NULL) { r->parent = t; if (r->height + 1 > t->height) t->height = r->height + 1; }
    return t;
}
