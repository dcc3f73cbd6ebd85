//! Shell quoting for lines the user is told to paste (bash, zsh, fish).
