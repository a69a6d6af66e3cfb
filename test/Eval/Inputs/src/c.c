/* Data only: no .text, so no size ratio. */
const int data[4] = {1, 2, 3, 4};
