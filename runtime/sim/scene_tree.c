/* placeholder: being written */
typedef int placeholder_unused_;
