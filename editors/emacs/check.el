;; The headless check behind .ci/editors.sh: load fplint.el, open FILE, wait
;; for Eglot's diagnostics in Flymake, print them, exit 0 only when the
;; expected code is among them.
;;   emacs --batch -l editors/emacs/fplint.el -l editors/emacs/check.el FILE
(require 'package)
(package-initialize)
(require 'eglot)
(require 'flymake)
(let* ((file (car command-line-args-left))
       (want (or (getenv "FPLINT_EXPECT") "FP001"))
       (timeout (/ (string-to-number (or (getenv "FPLINT_TIMEOUT_MS") "30000")) 1000.0))
       (buf (find-file file))
       (deadline (+ (float-time) timeout))
       (found nil))
  (setq command-line-args-left nil)
  (with-current-buffer buf
    ;; eglot-ensure connects from post-command-hook, which batch mode never runs.
    (run-hooks 'post-command-hook)
    (princ (format "emacs %s, eglot %s, %s\n" emacs-version
                   (let ((desc (cadr (assq 'eglot package-alist))))
                     (if desc (package-version-join (package-desc-version desc)) "built in"))
                   major-mode))
    (while (and (not found) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      ;; Flymake also starts its checks from post-command-hook.
      (run-hooks 'post-command-hook)
      (setq found (seq-find (lambda (d) (string-match-p (regexp-quote want) (flymake-diagnostic-text d)))
                            (flymake-diagnostics))))
    (dolist (d (flymake-diagnostics))
      (save-excursion
        (goto-char (flymake-diagnostic-beg d))
        (princ (format "%s:%d:%d: %s\n" file (line-number-at-pos) (1+ (current-column))
                       (flymake-diagnostic-text d)))))
    (if found
        (princ (format "%s reported\n" want))
      (princ (format "no %s diagnostic within %.0f s (eglot managing: %s)\n" want timeout
                     (and (eglot-current-server) t))))
    (when (eglot-current-server)
      (eglot-shutdown (eglot-current-server))))
  (kill-emacs (if found 0 1)))
