# Found by the parts fuzz target (ASan+UBSan, after 82,272 executions): a function header whose
# colon is on the next line, at column 0. tree-sitter reads on from `)` into that line; the
# cutter took any line of code at column 0 for a new statement and cut before the `:`. A line
# that cannot begin a statement (`:`, `)`, `,`, `=`, ...) now continues the one above.
def log_rarely(loss, step  )  
:# a comment after the colon
    print(step, loss)


log_rarely(0.0, 1)
