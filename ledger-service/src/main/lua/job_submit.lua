--[[
job_submit.lua: the alpsbridge ledger's check at submission, for slurmctld's job_submit/lua plugin
(tested with Debian's Slurm 22.05 and its Lua 5.1, and with Slurm 26.05.3 and Lua 5.4).

For every sbatch, srun and salloc, slurmctld calls slurm_job_submit below, under its locks, before the job is
queued. It hands the job (project = account, user, partition, the CPUs asked for, the time limit) to
ledger-submit (the hooks' C client, which asks the resident hook agent, which asks the ledger service's
read-only POST /v1/quote: the same worst case the prolog's hold would take, nothing held). When the project
cannot cover the job's worst case now, the job is refused and its owner reads why at the prompt:

  sbatch: error: ledger: job refused: project chem: insufficient balance: this job on 1 nodes x 4 cores for up
  to 60 min costs up to 240 core-minutes, available 100 (granted 6000, held 0, used 5900), short by 140; ask the
  project's PI or the allocation office for more, or shorten the job's time limit (INSUFFICIENT_BALANCE)

Whenever the ledger cannot say (no agent, no answer within submit_timeout, the service down), the job is
accepted (submit_when_unavailable=allow, the default, in ledger-hook.conf) and the prolog's hold still guards
it at dispatch: a submission check is advice, the hold is the guarantee. A job without an account, or asking
for several partitions, is left to the prolog too (nothing to price it by here).

Enable: JobSubmitPlugins=lua in slurm.conf, and this file as job_submit.lua in slurm.conf's directory
(ln -s /usr/share/alpsbridge-ledger-hooks/job_submit.lua /etc/slurm/job_submit.lua). A site with a job_submit.lua of
its own calls ledger_job_submit(job_desc, part_list, submit_uid) from it after
dofile("/usr/share/alpsbridge-ledger-hooks/job_submit.lua"); this file defines slurm_job_submit and
slurm_job_modify only where they are not defined yet.
--]]

-- the C client under this name asks the agent about a submission (see ledger-prolog's settings)
local LEDGER_SUBMIT = "/usr/bin/ledger-submit"

local NO_VAL16 = 65534  -- 0xfffe
local NO_VAL = 4294967294 -- 0xfffffffe
local INFINITE = 4294967295

-- A count as the digits the client reads: slurmctld pushes numbers as lua_Number, which Lua 5.3 and later (Slurm
-- 26.05 builds against 5.4) print as "4.0"; "%d" prints 4 in every Lua
local function whole(n)
    return string.format("%d", n)
end

local function count(n, no_val)
    if n == nil or n == 0 or n >= no_val then return nil end
    return n
end

-- the job's partition: its own (one), else the default partition
local function partition_of(job_desc, part_list)
    if job_desc.partition ~= nil then
        if string.find(job_desc.partition, ",") then return nil end
        return job_desc.partition, part_list[job_desc.partition]
    end
    for name, part in pairs(part_list) do
        if part.flag_default ~= nil and part.flag_default ~= 0 then return part.name or name, part end
    end
    return nil
end

-- the time limit in minutes as slurmctld will set it: the job's, else the partition's default, else its
-- maximum; "UNLIMITED" when none is finite (the prolog denies such a job: its worst case is unbounded)
local function limit_of(job_desc, part)
    local t = count(job_desc.time_limit, NO_VAL)
    if t == nil and part ~= nil then
        t = count(part.default_time, NO_VAL) or count(part.max_time, NO_VAL)
    end
    if t == nil or t == INFINITE then return "UNLIMITED" end
    return whole(t)
end

-- the CPUs asked for, at least: slurmctld may allocate more (whole nodes), which only the prolog's hold sees
local function cpus_of(job_desc)
    local per_task = count(job_desc.cpus_per_task, NO_VAL16) or 1
    local cpus = count(job_desc.min_cpus, NO_VAL) or 1
    local tasks = count(job_desc.num_tasks, NO_VAL)
    if tasks ~= nil and tasks * per_task > cpus then cpus = tasks * per_task end
    local nodes = count(job_desc.min_nodes, NO_VAL)
    local per_node = count(job_desc.ntasks_per_node, NO_VAL16)
    if nodes ~= nil and per_node ~= nil and nodes * per_node * per_task > cpus then
        cpus = nodes * per_node * per_task
    end
    return cpus
end

local function quoted(s)
    return "'" .. string.gsub(tostring(s), "'", "'\\''") .. "'"
end

local function check(job_desc, part_list, submit_uid)
    local account = job_desc.account or job_desc.default_account
    local partition, part = partition_of(job_desc, part_list)
    if account == nil or account == "" or partition == nil then
        slurm.log_debug("ledger: no account or one partition to price the job by; left to the prolog's hold")
        return slurm.SUCCESS
    end
    local user = job_desc.user_name or whole(submit_uid)
    local command = "SLURM_JOB_ACCOUNT=" .. quoted(account) .. " SLURM_JOB_USER=" .. quoted(user)
        .. " SLURM_JOB_PARTITION=" .. quoted(partition) .. " SLURM_JOB_CPUS=" .. whole(cpus_of(job_desc))
        .. " SLURM_JOB_TIME_LIMIT=" .. limit_of(job_desc, part)
        .. " " .. LEDGER_SUBMIT .. " 2>&1 </dev/null; echo \"exit=$?\""
    local pipe = io.popen(command)
    if pipe == nil then
        slurm.log_error("ledger: cannot run %s; the job is accepted, its hold at dispatch guards it", LEDGER_SUBMIT)
        return slurm.SUCCESS
    end
    local said = pipe:read("*a") or ""
    pipe:close()
    local exit = tonumber(string.match(said, "exit=(%d+)%s*$"))
    local lines = string.gsub(string.gsub(said, "exit=%d+%s*$", ""), "%s+$", "")
    if exit == 1 or exit == 3 then
        -- 1: the ledger refused; 3: it cannot say and the site set submit_when_unavailable=refuse
        slurm.log_info("ledger: refused a job of %s for %s: %s", account, user, lines)
        slurm.log_user("%s", lines)
        return slurm.ERROR
    end
    if exit ~= 0 then
        slurm.log_error("ledger: %s did not answer (%s); the job is accepted, its hold at dispatch guards it",
            LEDGER_SUBMIT, said)
    elseif lines ~= "" then
        slurm.log_info("%s", lines)
    end
    return slurm.SUCCESS
end

-- slurm.SUCCESS or slurm.ERROR (refused, the reason given to the user); a fault of this script accepts the job,
-- since a Lua error here would refuse it with no reason the ledger gave
function ledger_job_submit(job_desc, part_list, submit_uid)
    local ok, result = pcall(check, job_desc, part_list, submit_uid)
    if ok then return result end
    slurm.log_error("ledger: job_submit.lua failed (%s); the job is accepted, its hold at dispatch guards it",
        tostring(result))
    return slurm.SUCCESS
end

if slurm_job_submit == nil then
    function slurm_job_submit(job_desc, part_list, submit_uid)
        return ledger_job_submit(job_desc, part_list, submit_uid)
    end
end

if slurm_job_modify == nil then
    function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
        return slurm.SUCCESS
    end
end

return slurm.SUCCESS
