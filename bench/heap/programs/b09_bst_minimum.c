#include "tree.h"

int minimum() {
    struct tnode *cur;
    cur = root;
    if (cur == NULL)
        return -1;
    while (cur->left != NULL)
        cur = cur->left;
    return cur->key;
}

int main() {
    root = mk(5, mk(3, mk(1, NULL, NULL), mk(4, NULL, NULL)), mk(8, NULL, NULL));
    minimum();
    root = mk(2, NULL, mk(3, NULL, NULL));
    minimum();
    root = NULL;
    minimum();
    return 0;
}
