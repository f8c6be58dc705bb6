;; fplint's language server (`fplint server`) with Eglot (Emacs 29 has it
;; built in; Emacs 26.3 to 28 install the eglot package).
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               '((yaml-mode yaml-ts-mode json-mode json-ts-mode js-json-mode
                  terraform-mode hcl-mode)
                 . ("fplint" "server"))))
;; Start fplint in every buffer of those modes.
(dolist (hook '(yaml-mode-hook yaml-ts-mode-hook json-mode-hook json-ts-mode-hook
                js-json-mode-hook terraform-mode-hook hcl-mode-hook))
  (add-hook hook #'eglot-ensure))
